import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_45_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-45-0'
    return [line.qty * factor for line in cart.lines]


def step_45_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-45-1'
    return [line.qty * factor for line in cart.lines]


def step_45_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-45-2'
    return [line.qty * factor for line in cart.lines]


def step_45_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-45-3'
    return [line.qty * factor for line in cart.lines]

