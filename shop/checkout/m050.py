import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_50_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-50-0'
    return [line.qty * factor for line in cart.lines]


def step_50_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-50-1'
    return [line.qty * factor for line in cart.lines]


def step_50_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-50-2'
    return [line.qty * factor for line in cart.lines]


def step_50_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-50-3'
    return [line.qty * factor for line in cart.lines]

