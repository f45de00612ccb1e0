import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_17_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-17-0'
    return [line.qty * factor for line in cart.lines]


def step_17_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-17-1'
    return [line.qty * factor for line in cart.lines]


def step_17_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-17-2'
    return [line.qty * factor for line in cart.lines]


def step_17_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-17-3'
    return [line.qty * factor for line in cart.lines]

