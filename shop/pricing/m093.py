import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_93_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-93-0'
    return [line.qty * factor for line in cart.lines]


def step_93_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-93-1'
    return [line.qty * factor for line in cart.lines]


def step_93_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-93-2'
    return [line.qty * factor for line in cart.lines]


def step_93_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-93-3'
    return [line.qty * factor for line in cart.lines]

